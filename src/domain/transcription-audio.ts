// The audio a transcription request carries: the field it comes in and the containers accepted,
// named in the contract and checked against the bytes by services/transcription/audio.ts.

/** The only field of the multipart body. */
export const AUDIO_FIELD = "audio";

/**
 * The containers accepted, by the type `file-type` names from the bytes, with the extension the
 * file is sent upstream under (OpenAI's endpoint reads the format from the file name). WebM and
 * MP4 are named `video/` by the bytes whether or not they hold a picture: MediaRecorder records
 * audio in them (Chrome and Firefox WebM, Safari MP4).
 */
export const ACCEPTED_AUDIO: ReadonlyMap<string, string> = new Map([
  ["video/webm", "webm"],
  ["audio/ogg", "ogg"],
  ["audio/ogg; codecs=opus", "ogg"],
  ["video/mp4", "mp4"],
  ["audio/mp4", "m4a"],
  ["audio/x-m4a", "m4a"],
  ["audio/aac", "aac"],
  ["audio/mpeg", "mp3"],
  ["audio/wav", "wav"],
  ["audio/flac", "flac"],
]);

/** How the accepted formats are named to people. */
export const ACCEPTED_AUDIO_NAMES = ["webm", "ogg/opus", "mp4/m4a", "aac", "mp3", "wav", "flac"];
