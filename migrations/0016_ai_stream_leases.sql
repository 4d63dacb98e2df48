-- Leases of AI streams paid by the server's provider key: the per-user concurrency cap counts a
-- user's live rows (services/ai/limits.ts). A lease is taken by one conditional INSERT (only while
-- the user's live leases are under the cap, so concurrent requests in any isolate cannot overshoot),
-- deleted when its stream ends, and expires after the stream's longest life, so a Worker that
-- dies mid-stream frees its slot by itself. Expired rows are swept by the next acquisition.
-- The table is declared in src/db/schema.ts.
CREATE TABLE `ai_stream_leases` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ai_stream_leases_user_idx` ON `ai_stream_leases` (`user_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `ai_stream_leases_expiry_idx` ON `ai_stream_leases` (`expires_at`);
