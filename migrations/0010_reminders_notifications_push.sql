CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text DEFAULT 'reminder' NOT NULL,
	`reminder_id` text,
	`occurrence` text NOT NULL,
	`target_block_id` text,
	`title` text NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`channel` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`read_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`reminder_id`) REFERENCES `reminders`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_firing_idx` ON `notifications` (`reminder_id`,`occurrence`);--> statement-breakpoint
CREATE INDEX `notifications_user_created_idx` ON `notifications` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `push_deliveries` (
	`notification_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`user_id` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_status` integer,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`notification_id`, `subscription_id`),
	FOREIGN KEY (`notification_id`) REFERENCES `notifications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscription_id`) REFERENCES `push_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `push_deliveries_due_idx` ON `push_deliveries` (`next_attempt_at`) WHERE state = 'pending';--> statement-breakpoint
CREATE TABLE `push_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`expiration_time` integer,
	`user_agent` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_subscriptions_endpoint_idx` ON `push_subscriptions` (`user_id`,`endpoint`);--> statement-breakpoint
CREATE TABLE `reminders` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`target_block_id` text NOT NULL,
	`source_property_id` text NOT NULL,
	`series_start` text NOT NULL,
	`remind_at` text NOT NULL,
	`due_offset_ms` integer,
	`timezone` text NOT NULL,
	`channel` text NOT NULL,
	`recurrence_rule` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`schedule_id` text,
	`status` text NOT NULL,
	`next_fire_at` integer,
	`snoozed_until` text,
	`occurrence_count` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_block_id`) REFERENCES `blocks`(`id`) ON UPDATE cascade ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reminders_schedule_idx` ON `reminders` (`user_id`,`schedule_id`) WHERE schedule_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `reminders_next_fire_idx` ON `reminders` (`next_fire_at`) WHERE next_fire_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `reminders_user_created_idx` ON `reminders` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `reminders_user_target_idx` ON `reminders` (`user_id`,`target_block_id`);