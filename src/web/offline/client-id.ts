// The clientId of a submission: a UUID made on the phone when the entry is created, which the
// server keeps unique so that resending an entry can never record it twice.
export function newClientId(): string {
  // randomUUID only exists in secure contexts; a phone on a plain-http LAN address has the
  // random source without the helper.
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
