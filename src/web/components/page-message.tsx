// A centred card with a title, a text and optional actions: end states of the account
// screens, 'Page introuvable', loading failures, refused access. It stands for the whole
// screen, so its title is the page's <h1> and names it in the document title (unless the
// screen around it already named itself).
import type { ReactNode } from 'react';
import { Card, Center, Stack, Text, Title } from '@mantine/core';
import { usePageTitle } from './page-title';

export function PageMessage({ title, children, actions, color }: { title: string; children?: ReactNode; actions?: ReactNode; color?: string }) {
  usePageTitle(title);
  return (
    <Center py="xl" px="md">
      <Card withBorder shadow="sm" padding="xl" radius="md" maw={480} w="100%">
        <Stack gap="md">
          <Title order={1} size="h3" c={color}>
            {title}
          </Title>
          {typeof children === 'string' ? <Text>{children}</Text> : children}
          {actions}
        </Stack>
      </Card>
    </Center>
  );
}
