// A photo of the site sheet before it is stored: shrunk on the phone, not yet in the outbox.
// Apart from the picker so that the form state (use-sheet-form.ts) needs no component.

export const MAX_PHOTOS_PER_BLOCK = 3;

/** clientId is its id on the server too. */
export interface PhotoDraft {
  clientId: string;
  type: string;
  data: ArrayBuffer;
}
