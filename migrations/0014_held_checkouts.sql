-- Checkouts held for the operator. A `checkout.session.completed` that would take a subscription
-- that has not ended away from its user (the user is linked to another customer whose
-- subscription has not ended, or the customer to another user) links nothing: re-linking would
-- leave that subscription billing with no user able to see or cancel it, and anyone can name a
-- user in a Payment Link's `client_reference_id`. It is kept here, one row per event, for the
-- operator to settle (refund the payer, or cancel one subscription and resend the event from
-- Stripe's dashboard). Its event id is not recorded in `payment_events`, so that resend applies it
-- once the conflict is gone, and sets `released_at` (services/payments/subscription-state.ts,
-- `linkCustomer`). `user_customer_id` / `customer_user_id`: the link that stood in the way.
-- Rows are not pruned (each stands for a payment someone made). Written by hand, numbered after
-- 0013; the table is declared in src/db/schema.ts and meta/0014_snapshot.json.
CREATE TABLE `held_checkouts` (
	`event_id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`reason` text NOT NULL,
	`user_customer_id` text,
	`customer_user_id` text,
	`checkout_at` integer NOT NULL,
	`held_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`released_at` text
);
