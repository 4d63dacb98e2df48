// The reminders bench's data: REMINDERS.users users, each with one database (a `title`
// and a `date` property, in database_properties as the service keeps them) of
// REMINDERS.perUser rows, and one reminder on each row's date property, all due
// a moment before the seed is written: status `scheduled`, `remind_at` =
// `next_fire_at` in the minute before, one-off (no rule), 15 minutes before the
// row's due date, in one of a few time zones. Channel `in_app`, except for the
// first REMINDERS.pushUsers users: theirs are `push`, and each of them has one
// Web Push subscription whose endpoint is the bench's loopback push receiver.
//
// The seed goes into a fresh local D1 (migrations, then these files), and each
// server gets its own byte-identical copy, as for the read endpoints (seed.ts).
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { REMINDERS } from "./config.ts";
import { createRandom } from "./dataset.ts";
import { inserts, tuple } from "./seed-sql.ts";
import { applyMigrations, executeFile } from "./wrangler.ts";

/** What the verification needs to know about one seeded reminder. */
export interface SeededReminder {
  id: string;
  userId: string;
  channel: "in_app" | "push";
  /** The firing's key the notification must carry: `next_fire_at` as ISO-8601 UTC. */
  occurrence: string;
}

export interface RemindersSeed {
  reminders: SeededReminder[];
  users: number;
  /** The latest `next_fire_at` seeded, epoch ms: every reminder is due from then on. */
  latestDue: number;
  /** --persist-to directories holding the same D1 state, one per server. */
  workerState: string;
  baselineState: string;
}

const TIME_ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo", "Australia/Sydney"] as const;
const TASKS = ["Send the invoice", "Review the draft", "Call the vendor", "Renew the contract", "Plan the sprint"];
/** `due_at` - `remind_at`: the date property's "15 minutes before". */
const DUE_OFFSET_MS = 15 * 60_000;
/** Reminders are due over the minute before the seed is written. */
const DUE_SPREAD_MS = 60_000;

/** Fixed ids from a fixed seed (dataset.ts's generator), random-looking so they index like real ones. */
function createIds(seed: number) {
  const random = createRandom(seed);
  /** As the service names properties: `prop_` and a short random part. */
  const propertyId = () => `prop_${Array.from({ length: 10 }, () => random.int(16).toString(16)).join("")}`;
  return { uuid: random.uuid, propertyId };
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** A subscription's keys as a browser gives them: a P-256 public key (uncompressed point) and 16 random bytes. */
async function subscriptionKeys(): Promise<{ p256dh: string; auth: string }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const point = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return {
    p256dh: Buffer.from(point).toString("base64url"),
    auth: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url"),
  };
}

/** The seed's SQL, as files to run in order, and the reminders it holds. */
function seedSql(
  now: number,
  pushEndpoint: (index: number) => string,
  keys: { p256dh: string; auth: string },
): { files: string[]; reminders: SeededReminder[]; latestDue: number } {
  const ids = createIds(10_000);
  const users: string[] = [];
  const databases: string[] = [];
  const properties: string[] = [];
  const rows: string[] = [];
  const reminderRows: string[] = [];
  const subscriptions: string[] = [];
  const reminders: SeededReminder[] = [];
  const created = iso(now - 86_400_000);
  let latestDue = 0;
  for (let u = 0; u < REMINDERS.users; u++) {
    const userId = ids.uuid();
    const n = String(u + 1).padStart(4, "0");
    users.push(tuple([userId, `reminders-${n}@example.test`, `Reminder User ${n}`]));
    const databaseId = ids.uuid();
    const titleId = ids.propertyId();
    const dateId = ids.propertyId();
    databases.push(
      tuple([
        databaseId,
        "database",
        null,
        null,
        JSON.stringify({ title: `Tasks ${n}` }),
        1,
        userId,
        userId,
        created,
        created,
      ]),
    );
    properties.push(tuple([titleId, databaseId, "Name", "name", "title", 0, created, created]));
    properties.push(tuple([dateId, databaseId, "Due", "due", "date", 1, created, created]));
    const channel = u < REMINDERS.pushUsers ? "push" : "in_app";
    if (channel === "push") {
      subscriptions.push(tuple([ids.uuid(), userId, pushEndpoint(u), keys.p256dh, keys.auth, created]));
    }
    for (let r = 0; r < REMINDERS.perUser; r++) {
      const index = u * REMINDERS.perUser + r;
      const rowId = ids.uuid();
      const reminderId = ids.uuid();
      // Spread over the minute before now, in a fixed order unrelated to the users'.
      const remindAt = now - 1000 - ((index * 7919) % DUE_SPREAD_MS);
      latestDue = Math.max(latestDue, remindAt);
      const timezone = TIME_ZONES[index % TIME_ZONES.length] as string;
      const properties = {
        [titleId]: `${TASKS[index % TASKS.length]} #${index + 1}`,
        [dateId]: { start: iso(remindAt + DUE_OFFSET_MS), reminder: "15_minutes_before" },
      };
      rows.push(
        tuple([
          rowId,
          "database_row",
          databaseId,
          databaseId,
          JSON.stringify(properties),
          r + 1,
          userId,
          userId,
          created,
          created,
        ]),
      );
      reminderRows.push(
        tuple([
          reminderId,
          userId,
          rowId,
          dateId,
          iso(remindAt),
          iso(remindAt),
          DUE_OFFSET_MS,
          timezone,
          channel,
          null,
          "{}",
          null,
          "scheduled",
          remindAt,
          null,
          0,
          1,
          created,
          created,
        ]),
      );
      reminders.push({ id: reminderId, userId, channel, occurrence: iso(remindAt) });
    }
  }
  const blockHead =
    "INSERT INTO blocks (id, type, parent_id, database_id, properties, position, created_by, last_edited_by, created_at, updated_at) VALUES\n";
  const accounts = [
    ...inserts("INSERT INTO users (id, email, name) VALUES\n", users),
    ...inserts(blockHead, databases),
    ...inserts(
      "INSERT INTO database_properties (id, database_id, name, name_key, type, position, created_at, updated_at) VALUES\n",
      properties,
    ),
    ...inserts(
      "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) VALUES\n",
      subscriptions,
    ),
  ].join("");
  const reminderHead = `INSERT INTO reminders (id, user_id, target_block_id, source_property_id, series_start, remind_at,
  due_offset_ms, timezone, channel, recurrence_rule, metadata, schedule_id, status, next_fire_at, snoozed_until,
  occurrence_count, version, created_at, updated_at) VALUES\n`;
  return {
    files: [accounts, [...inserts(blockHead, rows)].join(""), [...inserts(reminderHead, reminderRows)].join("")],
    reminders,
    latestDue,
  };
}

/**
 * Migrations and the seed in a fresh local D1 under `workDir`, copied once per server;
 * `pushEndpoint` gives the subscription endpoint of the push users.
 */
export async function seedReminders(workDir: string, pushEndpoint: (index: number) => string): Promise<RemindersSeed> {
  const workerState = join(workDir, "worker-state");
  const baselineState = join(workDir, "baseline-state");
  const sqlDir = join(workDir, "seed");
  await mkdir(sqlDir, { recursive: true });
  await applyMigrations(workerState);
  // Written after the migrations, so the reminders are due by a moment, not by the migrations' time.
  const { files, reminders, latestDue } = seedSql(Date.now(), pushEndpoint, await subscriptionKeys());
  for (const [i, sql] of files.entries()) {
    const file = join(sqlDir, `reminders-${i}.sql`);
    await writeFile(file, sql);
    await executeFile(workerState, file);
  }
  await cp(workerState, baselineState, { recursive: true });
  return { reminders, users: REMINDERS.users, latestDue, workerState, baselineState };
}
