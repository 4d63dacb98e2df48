-- The latest state of each subscription of a customer, whichever its record shows. `subscriptions`
-- has one record per customer, and any live subscription of a customer replaced another live one:
-- a second subscription on the same customer hid the first, still billing, from its user and from
-- the cancellation, and the record followed whichever subscription's event came last. The record
-- now keeps showing a subscription that has not ended; a state of another subscription of the
-- customer is kept here, held (`held_at`), and shown once the shown one ends, by one conditional
-- statement after every write (services/payments/subscription-state.ts, `showHeldSubscription`):
-- the latest that has not ended, so a plan change (new subscription created, old one deleted)
-- shows the new one in either arrival order. Every subscription's states are kept, not only held
-- ones, so that a late, older state of a subscription whose end was shown earlier never brings it
-- back. Filled here with the subscriptions the records show. Not pruned: one row per subscription.
--
-- `held_checkouts.released_by`: what released a hold, its own event id (a resend) or the write that
-- ended the subscription in its way, which releases it too (`releaseHeldCheckouts`); the rows
-- released before this migration were released by a resend. Written by hand, numbered after 0017;
-- the table is declared in src/db/schema.ts.
CREATE TABLE `subscription_states` (
	`customer_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`status` text NOT NULL,
	`price_id` text,
	`plan` text,
	`current_period_end` text,
	`cancel_at_period_end` integer DEFAULT false NOT NULL,
	`state_at` integer NOT NULL,
	`held_at` text,
	`released_at` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`customer_id`, `subscription_id`)
);
--> statement-breakpoint
INSERT INTO `subscription_states` (`customer_id`, `subscription_id`, `status`, `price_id`, `plan`,
	`current_period_end`, `cancel_at_period_end`, `state_at`)
SELECT `customer_id`, `subscription_id`, `status`, `price_id`, `plan`, `current_period_end`,
	`cancel_at_period_end`, `state_at`
FROM `subscriptions` WHERE `subscription_id` IS NOT NULL AND `status` IS NOT NULL;
--> statement-breakpoint
ALTER TABLE `held_checkouts` ADD `released_by` text;
--> statement-breakpoint
UPDATE `held_checkouts` SET `released_by` = `event_id` WHERE `released_at` IS NOT NULL;
