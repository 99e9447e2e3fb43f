// Mantine's Modal with the two habits every dialog of the app needs:
// - its close button is named in French ('Fermer');
// - Escape closes only the layer it was pressed in. A stock Modal listens to Escape on the whole
//   window, so Escape in a date picker, an open select or a second dialog on top of it closed
//   the dialog underneath as well. Here the dialog closes only when Escape is pressed in its own
//   content while no popup is open: a dialog above it, a calendar, a select's options or a menu
//   take that Escape for themselves (a date input keeps the focus while its calendar is open,
//   so the open popup is what tells). When the focus fell out of every dialog (the button that
//   held it went away, as a switch that saves and reloads), Escape closes the dialog on top.
// Focus stays trapped inside while it is open and returns to the opener on close (Mantine).
import { useId } from 'react';
import { Modal, type ModalProps } from '@mantine/core';
import { useWindowEvent } from '@mantine/hooks';

/** Popups that own Escape while they are open (rendered in a portal or inside the dialog). */
const OPEN_POPUP = '.mantine-Popover-dropdown, .mantine-Combobox-dropdown, .mantine-Menu-dropdown, [data-dates-dropdown]';

function escapeBelongsHere(content: Element, target: Element): boolean {
  if (!content.contains(target)) return false;
  if (target.closest('[data-mantine-stop-propagation="true"]')) return false;
  // A select keeps its closed dropdown in the page, hidden; a popup that holds the dialog is not
  // one opened from it.
  return [...document.querySelectorAll(OPEN_POPUP)].every((popup) => popup.contains(content) || getComputedStyle(popup).display === 'none');
}

function noPopupOpen(): boolean {
  return [...document.querySelectorAll(OPEN_POPUP)].every((popup) => getComputedStyle(popup).display === 'none');
}

/** The content of the dialog shown above the others: the highest layer, then the last opened. */
function topContent(): Element | null {
  let top: Element | null = null;
  let topZ = -Infinity;
  for (const content of document.querySelectorAll('.mantine-Modal-content')) {
    const z = Number(getComputedStyle(content.closest('.mantine-Modal-inner') ?? content).zIndex) || 0;
    if (z >= topZ) [top, topZ] = [content, z];
  }
  return top;
}

export function Dialog({ onClose, closeOnEscape = true, onKeyDown, closeButtonProps, ...props }: ModalProps) {
  const id = useId();
  useWindowEvent('keydown', (event) => {
    if (!props.opened || !closeOnEscape || event.key !== 'Escape' || event.defaultPrevented || event.isComposing) return;
    // With the focus in a dialog, the dialog's own handler below decides.
    const focused = document.activeElement;
    if (focused && focused !== document.body) return;
    const content = topContent();
    if (content?.closest('[data-dialog]')?.getAttribute('data-dialog') !== id || !noPopupOpen()) return;
    onClose();
  });
  return (
    <Modal
      {...props}
      data-dialog={id}
      onClose={onClose}
      closeOnEscape={false}
      closeButtonProps={{ 'aria-label': 'Fermer', ...closeButtonProps }}
      onKeyDown={(event) => {
        onKeyDown?.(event);
        if (event.key !== 'Escape' || !closeOnEscape || event.defaultPrevented || event.nativeEvent.isComposing) return;
        const content = event.currentTarget.querySelector('.mantine-Modal-content');
        if (!content || !escapeBelongsHere(content, event.target as Element)) return;
        event.stopPropagation();
        onClose();
      }}
    />
  );
}
