import { Button } from '@mantine/core';
import { Link } from 'react-router';
import { PageMessage } from '../components/page-message';

export function NotFoundPage() {
  return (
    <PageMessage
      title="Page introuvable"
      actions={
        <Button component={Link} to="/" variant="light">
          Retour à l’accueil
        </Button>
      }
    >
      La page demandée n’existe pas ou n’est pas disponible.
    </PageMessage>
  );
}
