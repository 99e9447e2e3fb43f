// A field screen that cannot show what it was opened for (an unknown site, a catalogue missing
// offline, a refused site): why, in red, and the way back to the site choice. With a title, the
// screen keeps its name (its <h1> and the document title).
import { Alert, Anchor, Stack } from '@mantine/core';
import { Link } from 'react-router';
import { PageTitle } from '../../components/page-title';
import { SITE_CHOICE_PATH } from './field-entry-paths';

export function PageAlert({ text, title }: { text: string; title?: string }) {
  return (
    <Stack maw={720} mx="auto">
      {title && <PageTitle>{title}</PageTitle>}
      <Alert color="red" role="alert">
        {text}
      </Alert>
      <Anchor component={Link} to={SITE_CHOICE_PATH}>
        Retour au choix du site
      </Anchor>
    </Stack>
  );
}
