CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`received_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`customer_id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`subscription_id` text,
	`status` text,
	`price_id` text,
	`plan` text,
	`current_period_end` text,
	`cancel_at_period_end` integer DEFAULT false NOT NULL,
	`state_at` integer DEFAULT 0 NOT NULL,
	`linked_at` integer,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_user_id_unique` ON `subscriptions` (`user_id`);--> statement-breakpoint
DROP INDEX `api_keys_user_idx`;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `scopes` text DEFAULT 'read,write' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `expires_at` text;--> statement-breakpoint
CREATE INDEX `api_keys_user_idx` ON `api_keys` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_external_id_unique` ON `users` (`external_id`);