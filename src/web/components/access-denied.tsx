// What a screen shows in place when the server answers 403 for what it needs (lib/api.ts: a 403
// never logs out): the refusal, why if the screen knows, and a way back that keeps the session
// and whatever waits on the phone.
import { Button, Group } from '@mantine/core';
import { Link } from 'react-router';
import { PageMessage } from './page-message';
import { FORBIDDEN_MESSAGE } from '../lib/api';

export const SITE_CHOICE_PATH = '/admin/choix/site';
export const HOME_PATH = '/admin';

export function AccessDenied({ children = 'Votre compte n’a pas accès à cet écran. Vous restez connecté.' }: { children?: string }) {
  return (
    <PageMessage
      title={FORBIDDEN_MESSAGE}
      color="red"
      actions={
        <Group gap="sm">
          <Button component={Link} to={SITE_CHOICE_PATH} variant="light">
            Retour au choix du site
          </Button>
          <Button component={Link} to={HOME_PATH} variant="default">
            Retour à l’accueil
          </Button>
        </Group>
      }
    >
      {children}
    </PageMessage>
  );
}
