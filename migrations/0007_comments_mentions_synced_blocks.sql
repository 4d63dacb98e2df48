CREATE TABLE `comments` (
	`id` text PRIMARY KEY NOT NULL,
	`block_id` text NOT NULL,
	`parent_id` text,
	`content` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`resolved` integer DEFAULT false NOT NULL,
	`resolved_at` text,
	`resolved_by` text,
	FOREIGN KEY (`block_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `comments_block_idx` ON `comments` (`block_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `comments_parent_idx` ON `comments` (`parent_id`);--> statement-breakpoint
CREATE TABLE `mentions` (
	`id` text PRIMARY KEY NOT NULL,
	`block_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`kind` text DEFAULT 'mention' NOT NULL,
	`origin` text DEFAULT 'api' NOT NULL,
	`snippet` text DEFAULT '' NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`block_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mentions_block_idx` ON `mentions` (`block_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `mentions_target_idx` ON `mentions` (`target_type`,`target_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `synced_blocks` (
	`id` text PRIMARY KEY NOT NULL,
	`source_block_id` text NOT NULL,
	`instance_block_id` text NOT NULL,
	`status` text DEFAULT 'synced' NOT NULL,
	`last_synced_at` text,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`source_block_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade,
	FOREIGN KEY (`instance_block_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `synced_blocks_instance_block_id_unique` ON `synced_blocks` (`instance_block_id`);--> statement-breakpoint
CREATE INDEX `synced_blocks_source_idx` ON `synced_blocks` (`source_block_id`,`created_at`);