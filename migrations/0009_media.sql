CREATE TABLE `media` (
	`id` text PRIMARY KEY NOT NULL,
	`bucket` text NOT NULL,
	`path` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	`state` text DEFAULT 'uploading' NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `media_bucket_path_idx` ON `media` (`bucket`,`path`);--> statement-breakpoint
CREATE INDEX `media_owner_created_idx` ON `media` (`created_by`,`created_at`);--> statement-breakpoint
CREATE INDEX `media_state_updated_idx` ON `media` (`state`,`updated_at`);