// The first bytes of recordings in each accepted container, as browsers and phones write them:
// enough for the content sniffing (magic numbers) to name the format. No real audio follows: the
// transcriber is faked.

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** 16-bit mono PCM WAV, 8 kHz, `samples` samples of silence. */
export function wavBytes(samples = 800): Uint8Array {
  const dataBytes = samples * 2;
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  bytes.set(ascii("RIFF"), 0);
  view.setUint32(4, 36 + dataBytes, true);
  bytes.set(ascii("WAVEfmt "), 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 8000, true);
  view.setUint32(28, 16000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  bytes.set(ascii("data"), 36);
  view.setUint32(40, dataBytes, true);
  return bytes;
}

/** An EBML header with DocType `webm` (Chrome's and Firefox's MediaRecorder). */
export const webmBytes = (): Uint8Array =>
  new Uint8Array([
    ...[0x1a, 0x45, 0xdf, 0xa3, 0x9f],
    ...[0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81, 0x08],
    ...[0x42, 0x82, 0x84, ...ascii("webm")],
    ...[0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02],
    ...new Array(64).fill(0),
  ]);

/** An Ogg page starting an Opus stream (Firefox, WhatsApp voice notes). */
export function oggOpusBytes(): Uint8Array {
  const bytes = new Uint8Array(128);
  bytes.set(ascii("OggS"), 0);
  bytes[5] = 2; // beginning of stream
  bytes.set(ascii("OpusHead"), 28);
  return bytes;
}

/** An Ogg page starting a Vorbis stream. */
export function oggVorbisBytes(): Uint8Array {
  const bytes = new Uint8Array(128);
  bytes.set(ascii("OggS"), 0);
  bytes[5] = 2;
  bytes.set([0x01, ...ascii("vorbis")], 28);
  return bytes;
}

/** An ISO BMFF `ftyp` box with major brand `brand`: `M4A ` (iPhone Voice Memos), `mp42`/`iso5` (Safari). */
export function ftypBytes(brand: string): Uint8Array {
  const bytes = new Uint8Array(64);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 32);
  bytes.set(ascii("ftyp"), 4);
  bytes.set(ascii(brand), 8);
  bytes.set(ascii("isom"), 16);
  view.setUint32(32, 8);
  bytes.set(ascii("free"), 36);
  return bytes;
}

/** ADTS AAC frames (Android's AAC recorder). */
export const aacBytes = (): Uint8Array =>
  new Uint8Array([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc, ...new Array(57).fill(0)]);

/** MPEG-1 Layer III frames without an ID3 tag. */
export function mp3Bytes(): Uint8Array {
  const bytes = new Uint8Array(2048);
  for (let offset = 0; offset < bytes.length; offset += 417) bytes.set([0xff, 0xfb, 0x90, 0x64], offset);
  return bytes;
}

/** An MP3 that starts with an ID3v2 tag. */
export function id3Mp3Bytes(): Uint8Array {
  const bytes = new Uint8Array(256);
  bytes.set([...ascii("ID3"), 4, 0, 0, 0, 0, 0, 100], 0);
  bytes.set([0xff, 0xfb, 0x90, 0x64], 110);
  return bytes;
}

export function flacBytes(): Uint8Array {
  const bytes = new Uint8Array(64);
  bytes.set(ascii("fLaC"), 0);
  return bytes;
}

/** Not audio. */
export const PNG_BYTES = new Uint8Array([
  ...[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52],
  ...new Array(32).fill(0),
]);
export const TEXT_BYTES = new TextEncoder().encode("Not a recording, just some text pretending to be one.");
export const PDF_BYTES = new TextEncoder().encode("%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF\n");
/** A 3GP recording (older Android phones): a container OpenAI's endpoint does not take. */
export const THREE_GP_BYTES = ftypBytes("3gp4");

/** Each accepted container: its bytes, the type the sniffing names, the name it is sent upstream under. */
export const ACCEPTED_RECORDINGS: { name: string; bytes: Uint8Array; mediaType: string; filename: string }[] = [
  { name: "WebM (Chrome, Firefox)", bytes: webmBytes(), mediaType: "video/webm", filename: "audio.webm" },
  { name: "Ogg Opus", bytes: oggOpusBytes(), mediaType: "audio/ogg; codecs=opus", filename: "audio.ogg" },
  { name: "Ogg Vorbis", bytes: oggVorbisBytes(), mediaType: "audio/ogg", filename: "audio.ogg" },
  { name: "M4A (iPhone)", bytes: ftypBytes("M4A "), mediaType: "audio/x-m4a", filename: "audio.m4a" },
  { name: "MP4 (Safari)", bytes: ftypBytes("iso5"), mediaType: "video/mp4", filename: "audio.mp4" },
  { name: "AAC (ADTS)", bytes: aacBytes(), mediaType: "audio/aac", filename: "audio.aac" },
  { name: "MP3", bytes: mp3Bytes(), mediaType: "audio/mpeg", filename: "audio.mp3" },
  { name: "MP3 with ID3", bytes: id3Mp3Bytes(), mediaType: "audio/mpeg", filename: "audio.mp3" },
  { name: "WAV", bytes: wavBytes(), mediaType: "audio/wav", filename: "audio.wav" },
  { name: "FLAC", bytes: flacBytes(), mediaType: "audio/flac", filename: "audio.flac" },
];
