// Mantine's modals.open*() calls are window events that only a mounted ModalsProvider hears.
// The provider is loaded after the first screen (deferred-hosts.tsx, to keep the field
// screens light), so the events of that short moment are held here and replayed once it is
// mounted: a confirmation asked for early is shown late, never lost.
const EVENTS = [
  'openModal',
  'openConfirmModal',
  'openContextModal',
  'closeModal',
  'closeContextModal',
  'closeAllModals',
  'updateModal',
  'updateContextModal',
].map((name) => `mantine-modals:${name}`);

let held: { type: string; detail: unknown }[] | null = [];

function hold(event: Event) {
  held?.push({ type: event.type, detail: (event as CustomEvent).detail });
}

if (typeof window !== 'undefined') for (const type of EVENTS) window.addEventListener(type, hold);

/** Called by the mounted provider: stops holding and replays what was asked meanwhile, in order. */
export function releaseModalEvents() {
  if (held === null) return;
  const pending = held;
  held = null;
  for (const type of EVENTS) window.removeEventListener(type, hold);
  for (const { type, detail } of pending) window.dispatchEvent(new CustomEvent(type, { detail }));
}
