// Moved to the core (src/core/order-words-view.ts), where the merchant's service reads it too; kept here for the
// operator's routes that still import it from http.
export * from '../core/order-words-view.ts';
