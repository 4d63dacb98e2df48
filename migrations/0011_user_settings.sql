CREATE TABLE `user_settings` (
	`user_id` text PRIMARY KEY NOT NULL,
	`quick_task_provider` text,
	`quick_task_model` text,
	`quick_task_database_id` text,
	`quick_task_skip_preview` integer DEFAULT false NOT NULL,
	`tasks_database_id` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
