// The red banner of a refused or unsent entry, as the site sheet and a permanence's tally show
// it: its title, one line per reason, and 'Voir les envois' when the entry waits on the phone.
import type { Ref } from 'react';
import { Alert, Anchor, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { OUTBOX_PATH } from './field-entry-paths';

export interface EntryBannerContent {
  title: string;
  lines: readonly string[];
}

export function EntryBanner({ banner, stored, ref }: { banner: EntryBannerContent; stored: boolean; ref?: Ref<HTMLDivElement> }) {
  return (
    <Alert color="red" role="alert" title={banner.title} ref={ref} tabIndex={-1}>
      {(banner.lines.length > 0 || stored) && (
        <Stack gap={2}>
          {banner.lines.map((line) => (
            <Text key={line} size="sm">
              {line}
            </Text>
          ))}
          {stored && (
            <Anchor component={Link} to={OUTBOX_PATH} size="sm">
              Voir les envois
            </Anchor>
          )}
        </Stack>
      )}
    </Alert>
  );
}
