CREATE TABLE `database_properties` (
	`id` text PRIMARY KEY NOT NULL,
	`database_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`options` text DEFAULT '[]' NOT NULL,
	`position` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`database_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `database_properties_name_idx` ON `database_properties` (`database_id`,`name`);--> statement-breakpoint
CREATE INDEX `database_properties_position_idx` ON `database_properties` (`database_id`,`position`);--> statement-breakpoint
CREATE TABLE `database_views` (
	`id` text PRIMARY KEY NOT NULL,
	`database_id` text NOT NULL,
	`name` text NOT NULL,
	`view_type` text NOT NULL,
	`date_property` text,
	`start_date_property` text,
	`end_date_property` text,
	`timeline_scale` text,
	`filters` text DEFAULT '[]' NOT NULL,
	`sorts` text DEFAULT '[]' NOT NULL,
	`visible_properties` text,
	`position` real,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`database_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `database_views_database_idx` ON `database_views` (`database_id`,`position`);