// What a screen or a dialog shows until the queries it needs have their data: a loader
// (aria-busy, role="status") while they load, then, when one of them failed, 'Une erreur est
// survenue' in a red alert (role="alert", read out) with a 'Réessayer' button that reloads the
// failed ones. A query that failed to refresh keeps showing the data it had.
import type { ReactNode } from 'react';
import { Alert, Button, Center, Loader, Stack, Text } from '@mantine/core';

interface QueryLike {
  data: unknown;
  isError: boolean;
  refetch: () => unknown;
}

/** The data of each query, once it has some. */
type Loaded<Q extends readonly QueryLike[]> = { [K in keyof Q]: Exclude<Q[K]['data'], undefined> };

export const LOAD_FAILED = 'Une erreur est survenue';

export function Loading({ label = 'Chargement' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-busy="true" aria-label={label}>
      <Loader aria-hidden />
    </Center>
  );
}

/**
 * `children` receives the queries' data, in their order, once every one has some; nothing is
 * drawn then without `children` (the screen draws the data itself). `detail` says what failed.
 */
export function QueryState<const Q extends readonly QueryLike[]>({ queries, label, detail, children }: { queries: Q; label?: string; detail?: string; children?: (...data: Loaded<Q>) => ReactNode }) {
  if (queries.every((q) => q.data !== undefined)) return children?.(...(queries.map((q) => q.data) as Loaded<Q>)) ?? null;
  const failed = queries.filter((q) => q.isError && q.data === undefined);
  if (failed.length === 0) return <Loading label={label} />;
  return (
    <Alert color="red" role="alert" title={LOAD_FAILED}>
      <Stack gap="xs" align="flex-start">
        {detail && <Text size="sm">{detail}</Text>}
        <Button size="xs" variant="light" color="red" onClick={() => failed.forEach((q) => void q.refetch())}>
          Réessayer
        </Button>
      </Stack>
    </Alert>
  );
}
