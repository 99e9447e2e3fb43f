// Drawer entries a module adds to the shared list (shared/permissions.ts NAV_ENTRIES), for
// screens of its own that the product's menu does not name (the offline outbox's 'Envois').
// Shown to the same roles rule, after the entry whose path `after` names (at the end without
// it), and only when their screen is mounted, like every entry.
//
//   registerNavEntry({ label: 'Envois', path: '/admin/envois', roles: [...] }, { after: '/admin/choix/site' });
import { useSyncExternalStore } from 'react';
import type { NavEntry } from '../../shared/permissions';

export interface ExtraNavEntry extends NavEntry {
  /** Path of the entry this one follows. */
  after?: string;
}

let extras: readonly ExtraNavEntry[] = [];
const listeners = new Set<() => void>();

export function registerNavEntry(entry: NavEntry, options: { after?: string } = {}): () => void {
  if (!extras.some((e) => e.path === entry.path)) {
    extras = [...extras, { ...entry, after: options.after }];
    for (const listener of listeners) listener();
  }
  return () => {
    extras = extras.filter((e) => e.path !== entry.path);
    for (const listener of listeners) listener();
  };
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const getExtras = () => extras;

export function useExtraNavEntries(): readonly ExtraNavEntry[] {
  return useSyncExternalStore(subscribe, getExtras, getExtras);
}

/** `base` with the extras of these roles placed after their anchor (or at the end), each path once. */
export function withExtras(base: readonly NavEntry[], more: readonly ExtraNavEntry[], roles: readonly string[]): NavEntry[] {
  const out: NavEntry[] = [...base];
  for (const extra of more) {
    if (out.some((e) => e.path === extra.path) || !extra.roles.some((r) => roles.includes(r))) continue;
    const entry: NavEntry = { label: extra.label, path: extra.path, roles: extra.roles };
    const anchor = extra.after === undefined ? -1 : out.findIndex((e) => e.path === extra.after);
    if (anchor === -1) out.push(entry);
    else out.splice(anchor + 1, 0, entry);
  }
  return out;
}
