// The hosts of modals and toasts, in a chunk of their own loaded after the first screen: the
// field screens do not need them to be filled and saved, and they weigh about 15 KB gzip.
// Nothing is lost meanwhile: toasts wait in Mantine's notifications store until the host
// shows them, modal requests are replayed by modal-events.ts.
import { useEffect } from 'react';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { releaseModalEvents } from './modal-events';

function ReleaseHeldModals() {
  // Runs after ModalsProvider subscribed to the events (its layout effect comes first).
  useEffect(() => releaseModalEvents(), []);
  return null;
}

export default function DeferredHosts() {
  return (
    <>
      <ModalsProvider labels={{ confirm: 'Oui', cancel: 'Non' }}>
        <ReleaseHeldModals />
      </ModalsProvider>
      <Notifications position="top-right" />
    </>
  );
}
