<?php
/**
 * "One mail a minute per account", held under simultaneous presses (email-proof.php). Reading when the last mail went
 * and writing the new time later lets every press that reads before the first writes send a mail (16 presses at once
 * sent up to 5 with 4 PHP workers). So each mail is claimed in one statement the database decides: an insert of the
 * account's row on the options table's unique option_name (the lock WordPress's own upgrader takes), or, once the
 * row's time is over a minute old, an update that only succeeds if the row still holds the time that was read.
 * add_option() would not do: it reads first, then upserts.
 *
 * The row holds when the account's last mail went (autoload off); uninstall.php deletes them all.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_MAIL_CLAIM_PREFIX = 'loyalty_bridge_mail_';

/** Whether this request may send the account's mail now; if so, the next may send only a minute from now. */
function loyalty_bridge_claim_mail( int $user_id, int $now, int $interval ): bool {
	global $wpdb;
	$name     = LOYALTY_BRIDGE_MAIL_CLAIM_PREFIX . $user_id;
	$inserted = $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", $name, (string) $now ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery -- an atomic claim; no cache may answer it.
	if ( 1 === $inserted ) {
		return true;
	}
	$last = $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", $name ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
	if ( ! is_string( $last ) || (int) $last > $now - $interval ) {
		return false;
	}
	// Of the presses that read the same old time, the first update changes the row; the others find it changed.
	return 1 === $wpdb->query( $wpdb->prepare( "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s", (string) $now, $name, $last ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
}

/** Gives a claim back (its mail could not be sent), if it is still this request's: the customer may ask again at once. */
function loyalty_bridge_release_mail( int $user_id, int $claimed_at ): void {
	global $wpdb;
	$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value = %s", LOYALTY_BRIDGE_MAIL_CLAIM_PREFIX . $user_id, (string) $claimed_at ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
}

/** Every account's claim (uninstall.php). */
function loyalty_bridge_forget_mail_claims(): void {
	global $wpdb;
	$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like( LOYALTY_BRIDGE_MAIL_CLAIM_PREFIX ) . '%' ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
}
