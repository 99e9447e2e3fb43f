// /foyer/quitter?jeton=…: the page behind the leave link of a household's e-mails. Opening it
// changes nothing (a mail scanner that follows links must not delete anyone): it explains, and
// the button posts the token; the record is then deleted and the server's answer shown. A link
// already used, forged or cut is 'Ce lien n’est plus valide.'.
import { useState } from 'react';
import { Button, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageMessage } from '../../components/page-message';
import { readFailure } from '../../lib/api';
import { leaveSite } from './households.api';

const LINK_INVALID = 'Ce lien n’est plus valide.';
/** What the server accepts as a token (foyerJetonSchema); anything else is no link of ours. */
const TOKEN = /^[A-Za-z0-9_.-]{10,200}$/;

type State = { kind: 'ready' } | { kind: 'sending' } | { kind: 'done'; message: string } | { kind: 'invalid'; message: string } | { kind: 'error'; message: string };

export function LeavePage() {
  const jeton = useSearchParams()[0].get('jeton') ?? '';
  const [state, setState] = useState<State>(() => (TOKEN.test(jeton) ? { kind: 'ready' } : { kind: 'invalid', message: LINK_INVALID }));

  const leave = async () => {
    setState({ kind: 'sending' });
    try {
      const done = await leaveSite(jeton);
      setState({ kind: 'done', message: done.message });
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.network) setState({ kind: 'error', message: 'Le serveur est injoignable. Vérifiez votre connexion puis réessayez.' });
      // Any other refusal is about the link (unknown, already used, forged): one plain sentence.
      else if (failure.status !== null && failure.status < 500 && failure.status !== 408 && failure.status !== 429) setState({ kind: 'invalid', message: LINK_INVALID });
      else setState({ kind: 'error', message: failure.message && failure.status === 429 ? failure.message : 'Une erreur est survenue. Réessayez dans un instant.' });
    }
  };

  if (state.kind === 'done') {
    return <PageMessage title="Vous avez quitté le site">{state.message}</PageMessage>;
  }
  if (state.kind === 'invalid') {
    return (
      <PageMessage title="Lien invalide" color="red">
        {state.message}
      </PageMessage>
    );
  }
  return (
    <PageMessage
      title="Quitter le site de compostage"
      actions={
        <Stack gap="sm">
          {state.kind === 'error' && (
            <Text c="red" role="alert">
              {state.message}
            </Text>
          )}
          <Button color="red" loading={state.kind === 'sending'} onClick={() => void leave()}>
            Quitter le site et supprimer mes données
          </Button>
        </Stack>
      }
    >
      <Stack gap="xs">
        <Text>Votre foyer est inscrit sur un site de compostage partagé.</Text>
        <Text>
          En quittant le site, votre inscription est supprimée avec votre prénom et votre adresse mail : vous ne recevrez plus ses nouvelles. Vous pourrez
          vous inscrire à nouveau depuis la page du site.
        </Text>
      </Stack>
    </PageMessage>
  );
}
