// The Leaflet map of the sites (its own chunk with Leaflet, loaded only by /admin/carte): the
// tiles the server names, one marker per placed site (map.css gives each state its colour,
// shape and sign), grouped by a grid when they would overlap (clustering.ts): a group shows
// its count and zooms in on its sites when pressed. The markers and groups are buttons Leaflet
// puts in the tab order (Enter presses them). Without tiles (no network, blocked server) the
// markers still stand on a blank map and a line says the background is missing.
import 'leaflet/dist/leaflet.css';
import './map.css';
import { useEffect, useMemo, useState, type Ref } from 'react';
import { Text } from '@mantine/core';
import { divIcon, latLngBounds, type DivIcon, type LatLngTuple, type Map as LeafletMap } from 'leaflet';
import { MapContainer, Marker, TileLayer, ZoomControl, useMap, useMapEvents } from 'react-leaflet';
import { markerState, type Carte, type CarteSite, type MarkerState } from '../../../shared/schemas/map';
import { clusterByGrid } from './clustering';
import { escapeHtml, markerHtml } from './site-state';

/** A placed site. */
export type PlacedSite = CarteSite & { latitude: number; longitude: number };
export const isPlaced = (s: CarteSite): s is PlacedSite => s.latitude !== null && s.longitude !== null;

/** Markers closer than this (px) are drawn as one group. */
const CLUSTER_PX = 44;
/** From this zoom on, every site has its own marker (sites at the very same place included). */
const NO_CLUSTER_ZOOM = 17;
const MAX_ZOOM = 19;

const SEVERITY: Record<MarkerState, number> = { calme: 0, demandes: 1, alerte: 2 };

const position = (s: PlacedSite): LatLngTuple => [s.latitude, s.longitude];

/**
 * One icon object per look: Leaflet redraws a marker whose icon object changes, and a redrawn
 * marker loses the keyboard focus.
 */
const icons = new Map<string, DivIcon>();
function iconFor(html: string, size: number): DivIcon {
  let icon = icons.get(html);
  if (!icon) {
    if (icons.size > 2000) icons.clear();
    icon = divIcon({ className: 'compost-marker', html, iconSize: [size, size], iconAnchor: [size / 2, size / 2] });
    icons.set(html, icon);
  }
  return icon;
}

interface Props {
  sites: readonly PlacedSite[];
  tuiles: Carte['tuiles'];
  selectedId: number | null;
  onSelect: (id: number) => void;
  /** A site to bring into view (chosen in the list); `nonce` repeats the request. */
  focus: { id: number; nonce: number } | null;
  height: string;
  mapRef?: Ref<LeafletMap>;
}

export function SiteMap({ sites, tuiles, selectedId, onSelect, focus, height, mapRef }: Props) {
  const [tilesFailed, setTilesFailed] = useState(false);
  // The first view only: later changes of the list do not move the map under the user.
  const [bounds] = useState(() => latLngBounds(sites.map(position)));
  return (
    <div>
      <MapContainer
        ref={mapRef}
        bounds={bounds}
        boundsOptions={{ padding: [32, 32], maxZoom: 16 }}
        maxZoom={MAX_ZOOM}
        minZoom={2}
        zoomControl={false}
        style={{ height, width: '100%', background: '#e9ecef' }}
        className="site-map"
      >
        <ZoomControl position="topleft" zoomInTitle="Zoom avant" zoomOutTitle="Zoom arrière" />
        {/* The page sends no referrer (security headers); tile servers such as OpenStreetMap's
            refuse requests that do not say which site they come from. */}
        <TileLayer
          url={tuiles.url}
          attribution={tuiles.attribution}
          maxZoom={MAX_ZOOM}
          referrerPolicy="strict-origin-when-cross-origin"
          eventHandlers={{ tileerror: () => setTilesFailed(true) }}
        />
        <SiteMarkers sites={sites} selectedId={selectedId} onSelect={onSelect} focus={focus} />
      </MapContainer>
      {tilesFailed && (
        <Text size="sm" c="dimmed" mt={4} role="status">
          Le fond de carte n’a pas pu être chargé : les sites restent affichés.
        </Text>
      )}
    </div>
  );
}

function SiteMarkers({ sites, selectedId, onSelect, focus }: Pick<Props, 'sites' | 'selectedId' | 'onSelect' | 'focus'>) {
  const map = useMap();
  const [zoom, setZoom] = useState(() => map.getZoom());
  useMapEvents({ zoomend: () => setZoom(map.getZoom()) });

  const clusters = useMemo(
    () => clusterByGrid(sites, (s) => map.project(position(s), zoom), zoom >= NO_CLUSTER_ZOOM ? 0 : CLUSTER_PX),
    [sites, map, zoom],
  );

  // A site chosen in the list: centred, at the first zoom where it stands alone.
  useEffect(() => {
    if (!focus) return;
    const site = sites.find((s) => s.id === focus.id);
    if (!site) return;
    let z = Math.max(map.getZoom(), 13);
    while (z < NO_CLUSTER_ZOOM) {
      const at = z;
      const alone = clusterByGrid(sites, (s) => map.project(position(s), at), CLUSTER_PX).some((c) => c.items.length === 1 && c.items[0].id === site.id);
      if (alone) break;
      z++;
    }
    map.setView(position(site), z);
  }, [focus, map, sites]);

  return clusters.map((cluster) => {
    if (cluster.items.length === 1) {
      const site = cluster.items[0];
      const selected = site.id === selectedId;
      return (
        <Marker
          key={site.id}
          position={position(site)}
          icon={iconFor(markerHtml(site, selected), 28)}
          zIndexOffset={selected ? 1000 : SEVERITY[markerState(site)] * 100}
          eventHandlers={{ click: () => onSelect(site.id) }}
        />
      );
    }
    const worst = cluster.items.reduce<MarkerState>((w, s) => (SEVERITY[markerState(s)] > SEVERITY[w] ? markerState(s) : w), 'calme');
    const label = `${cluster.items.length} sites regroupés : zoomer sur ce groupe`;
    return (
      <Marker
        key={cluster.items.map((s) => s.id).join('-')}
        position={map.unproject([cluster.center.x, cluster.center.y], zoom)}
        icon={iconFor(`<span class="compost-cluster" data-worst="${worst}" aria-hidden="true">${cluster.items.length}</span><span class="compost-sr-only">${escapeHtml(label)}</span>`, 40)}
        zIndexOffset={2000}
        eventHandlers={{ click: () => map.fitBounds(latLngBounds(cluster.items.map(position)), { padding: [48, 48], maxZoom: NO_CLUSTER_ZOOM }) }}
      />
    );
  });
}
