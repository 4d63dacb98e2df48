// No shapes of their own: these routes take and answer the AI resource's (src/schemas/ai.ts).
