// No shapes of their own: these routes take and answer the settings resource's (src/schemas/settings.ts).
