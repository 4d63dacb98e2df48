-- Ends app sessions before they expire: `POST /auth/sign-out` sets the user's `sessions_valid_from`
-- (services/accounts/sign-out.ts), and every request made with a session token checks that the
-- token was issued at or after it (auth/credential-liveness.ts, in the request's first D1 batch).
-- ISO-8601 with milliseconds, like the other instants; null: no session of the user was ended.
ALTER TABLE `users` ADD `sessions_valid_from` text;
