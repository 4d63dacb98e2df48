CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`display_prefix` text NOT NULL,
	`display_suffix` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_user_idx` ON `api_keys` (`user_id`);--> statement-breakpoint
CREATE TABLE `blocks` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`parent_id` text,
	`database_id` text,
	`teamspace_id` text,
	`properties` text DEFAULT '{}' NOT NULL,
	`content` text,
	`position` real,
	`archived` integer DEFAULT false NOT NULL,
	`in_trash` integer DEFAULT false NOT NULL,
	`created_by` text,
	`last_edited_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blocks_id_unique` ON `blocks` (`id`);--> statement-breakpoint
CREATE INDEX `blocks_parent_position_idx` ON `blocks` (`parent_id`,`position`);--> statement-breakpoint
CREATE INDEX `blocks_database_idx` ON `blocks` (`database_id`);--> statement-breakpoint
CREATE INDEX `blocks_owner_updated_idx` ON `blocks` (`created_by`,`updated_at`);--> statement-breakpoint
CREATE INDEX `blocks_owner_created_idx` ON `blocks` (`created_by`,`created_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);