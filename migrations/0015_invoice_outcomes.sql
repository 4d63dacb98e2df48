-- What each `invoice.paid` / `invoice.payment_failed` event says of its subscription, kept so that
-- the subscription's stored state is the same whatever order Stripe's events arrive in: an
-- invoice event that arrives before its subscription's (or before an older invoice's) is kept here
-- and applied when the subscription is written, by one conditional statement that replays the
-- outcomes not older than the stored state (services/payments/subscription-state.ts,
-- `applyInvoiceOutcomes`). Without it, such an invoice found nothing to move, was recorded as
-- applied, and a later, older subscription event showed `active` over a newer failure. Pruned
-- with the applied event ids (35 days). Written by hand, numbered after 0014; the table is
-- declared in src/db/schema.ts and meta/0015_snapshot.json.
CREATE TABLE `invoice_outcomes` (
	`event_id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`outcome` text NOT NULL,
	`created` integer NOT NULL,
	`received_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoice_outcomes_subscription_idx` ON `invoice_outcomes` (`customer_id`,`subscription_id`,`created`);
