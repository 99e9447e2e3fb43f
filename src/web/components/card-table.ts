// Tables whose rows show as cards on a phone (card-table.css): the data table of every admin
// list, and plain Mantine tables whose cells carry data-label (their column's name) and
// data-actions (the row's buttons, shown first). Below Mantine's `sm` breakpoint only.
import './card-table.css';

/** From Mantine's `sm` breakpoint up, a table is a table. */
export const WIDE_QUERY = '(min-width: 48em)';
/** The class (on the table or one of its ancestors) that shows its rows as cards. */
export const CARDS_CLASS = 'compost-cards';
