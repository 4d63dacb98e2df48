// No shapes of their own: this route takes and answers the transcription's (src/schemas/transcription.ts).
