// /confirmation/:token: the link of the validation e-mail.
import { Anchor, Button, Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { Link, useParams } from 'react-router';
import { PageMessage } from '../../components/page-message';
import { confirmationQuery } from './account.api';

export function ConfirmationPage() {
  const { token = '' } = useParams();
  const confirmation = useQuery(confirmationQuery(token));

  if (confirmation.isPending) {
    return (
      <Center py="xl" role="status" aria-label="Validation en cours">
        <Loader />
      </Center>
    );
  }
  const toLogin = (
    <Anchor component={Link} to="/login">
      Aller à la connexion
    </Anchor>
  );
  if (confirmation.isError) {
    // The server answered no: the link is unknown, expired or already used.
    if (confirmation.error instanceof HTTPError && confirmation.error.response.status < 500) {
      return (
        <PageMessage title="Compte introuvable" color="red" actions={toLogin}>
          Ce lien de validation est invalide, expiré ou a déjà été utilisé.
        </PageMessage>
      );
    }
    return (
      <PageMessage title="Une erreur est survenue." color="red" actions={<Button onClick={() => void confirmation.refetch()}>Réessayer</Button>}>
        La validation n’a pas pu aboutir. Vérifiez votre connexion puis réessayez.
      </PageMessage>
    );
  }
  return (
    <PageMessage title="Validation adresse mail" actions={toLogin}>
      Votre adresse mail est validée. Vous pourrez vous connecter dès qu’un administrateur aura activé votre compte.
    </PageMessage>
  );
}
