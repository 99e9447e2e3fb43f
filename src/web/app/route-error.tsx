// Shown when a screen fails to render or its code cannot be loaded (typically a new version
// was deployed and an old chunk is gone, or the network dropped while opening a screen).
import { Button, Group } from '@mantine/core';
import { Link, useRouteError } from 'react-router';
import { PageMessage } from '../components/page-message';
import { browser } from '../lib/browser';

export function RouteError() {
  const error = useRouteError();
  console.error(error);
  return (
    <PageMessage
      title="Une erreur est survenue."
      color="red"
      actions={
        <Group>
          <Button onClick={() => browser.reload()}>Recharger la page</Button>
          <Button component={Link} to="/" variant="default" reloadDocument>
            Retour à l’accueil
          </Button>
        </Group>
      }
    >
      Cet écran n’a pas pu s’afficher. Rechargez la page ; si le problème persiste, vérifiez votre connexion.
    </PageMessage>
  );
}
