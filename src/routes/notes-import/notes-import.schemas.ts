// No shapes of their own: this route takes and answers the notes import's (src/schemas/notes-import.ts).
