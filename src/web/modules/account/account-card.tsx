// Frame of the public account screens: a narrow centred card under the top bar, whose title
// is the page's <h1> and names it in the document title.
import type { ReactNode } from 'react';
import { Card, Center, Stack, Title } from '@mantine/core';
import { usePageTitle } from '../../components/page-title';

export function AccountCard({ title, children }: { title: string; children: ReactNode }) {
  usePageTitle(title);
  return (
    <Center py="xl" px="xs">
      <Card withBorder shadow="sm" padding="xl" radius="md" maw={460} w="100%">
        <Stack gap="md">
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Card>
    </Center>
  );
}
