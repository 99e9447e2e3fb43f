// Mantine's Modal with the two habits every dialog of the app needs:
// - its close button is named in French ('Fermer');
// - Escape closes only the layer it was pressed in. A stock Modal listens to Escape on the whole
//   window, so Escape in a date picker, an open select or a second dialog on top of it closed
//   the dialog underneath as well. Here the dialog closes only when Escape is pressed in its own
//   content while no popup is open: a dialog above it, a calendar, a select's options or a menu
//   take that Escape for themselves (a date input keeps the focus while its calendar is open,
//   so the open popup is what tells).
// Focus stays trapped inside while it is open and returns to the opener on close (Mantine).
import { Modal, type ModalProps } from '@mantine/core';

/** Popups that own Escape while they are open (rendered in a portal or inside the dialog). */
const OPEN_POPUP = '.mantine-Popover-dropdown, .mantine-Combobox-dropdown, .mantine-Menu-dropdown, [data-dates-dropdown]';

function escapeBelongsHere(content: Element, target: Element): boolean {
  if (!content.contains(target)) return false;
  if (target.closest('[data-mantine-stop-propagation="true"]')) return false;
  // A select keeps its closed dropdown in the page, hidden; a popup that holds the dialog is not
  // one opened from it.
  return [...document.querySelectorAll(OPEN_POPUP)].every((popup) => popup.contains(content) || getComputedStyle(popup).display === 'none');
}

export function Dialog({ onClose, closeOnEscape = true, onKeyDown, closeButtonProps, ...props }: ModalProps) {
  return (
    <Modal
      {...props}
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
