/**
 * Rate-limit windows are aligned to the clock (Workers Rate Limiting's local simulation, and this
 * service's own count: auth/credential-limit.ts). A test that counts up to a limit and expects the
 * next request refused must do it within one window: it starts early in one, waiting out the last
 * `marginSeconds` of the current window if that is where it is.
 */
export async function startEarlyInAWindow(windowSeconds = 60, marginSeconds = 10): Promise<void> {
  const left = windowSeconds - ((Date.now() / 1000) % windowSeconds);
  if (left < marginSeconds) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
}
