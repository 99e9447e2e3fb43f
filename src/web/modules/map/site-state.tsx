// What a site's marker says, in words and in shape: the state of shared/schemas/map.ts
// (open alerts first, then pending requests, then nothing) as a text for the list, the card and
// screen readers, and as the marker's HTML (map.css draws it).
import './map.css';
import { Group, Text } from '@mantine/core';
import { markerState, type CarteSite, type MarkerState } from '../../../shared/schemas/map';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The sign drawn inside the marker's shape. */
export function stateSign(site: Pick<CarteSite, 'alertes' | 'demandesEnAttente'>): string {
  const state = markerState(site);
  if (state === 'alerte') return '!';
  if (state === 'demandes') return site.demandesEnAttente > 9 ? '9+' : String(site.demandesEnAttente);
  return '✓';
}

/** '2 alertes, 1 demande en attente', '3 demandes en attente', 'Rien en attente'. */
export function stateText(site: Pick<CarteSite, 'alertes' | 'demandesEnAttente'>): string {
  const parts = [
    ...(site.alertes > 0 ? [plural(site.alertes, 'alerte', 'alertes')] : []),
    ...(site.demandesEnAttente > 0 ? [plural(site.demandesEnAttente, 'demande en attente', 'demandes en attente')] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'Rien en attente';
}

export const STATE_TITLES: Record<MarkerState, string> = {
  alerte: 'Alertes ouvertes',
  demandes: 'Demandes en attente',
  calme: 'Rien en attente',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The marker's HTML: its shape and sign (hidden from screen readers) and its name in words. */
export function markerHtml(site: CarteSite, selected: boolean): string {
  return (
    `<span class="compost-marker-shape" data-state="${markerState(site)}" data-selected="${selected}" aria-hidden="true">${escapeHtml(stateSign(site))}</span>` +
    `<span class="compost-sr-only">${escapeHtml(`${site.nom} : ${stateText(site)}`)}</span>`
  );
}

/** The shape and the words, side by side (the list and the card). */
export function SiteState({ site, size = 'sm' }: { site: CarteSite; size?: 'xs' | 'sm' }) {
  return (
    <Group gap={6} wrap="nowrap" data-state={markerState(site)}>
      <span className="compost-marker-shape is-small" data-state={markerState(site)} aria-hidden="true">
        {stateSign(site)}
      </span>
      <Text size={size} c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {stateText(site)}
      </Text>
    </Group>
  );
}
