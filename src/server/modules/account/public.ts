// What other modules may use of the account module: its service (the mail that lets a person
// choose a password).
export { createAccountService } from './account.service.js';
