<?php
/**
 * Removing the plugin disconnects the store as Disconnect does (the store's plugin key must not outlive the plugin,
 * here or at the bridge: a backup of the site would still hold it) and forgets what it kept of its customers: the
 * addresses they proved, the proof links on their way, and when each last got one.
 *
 * WordPress runs this file without the plugin loaded, and with no page to show: what could not be done is logged. On a
 * multisite network it runs once, for the whole network: each site's own connection is disconnected.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

require_once __DIR__ . '/includes/signing.php';
require_once __DIR__ . '/includes/bridge-http.php';
require_once __DIR__ . '/includes/connection.php';
require_once __DIR__ . '/includes/mail-claim.php';

/*
 * One site's connection: told to the bridge, then deleted with the site's mail claims. A closure, not a function:
 * nothing of this file may be declared twice.
 */
$loyalty_bridge_forget_site = static function (): void {
	$connection = loyalty_bridge_connection();
	if ( null !== $connection && ! loyalty_bridge_disconnect() ) {
		// phpcs:ignore WordPress.PHP.DevelopmentFunctions -- the one place an uninstall can say what it could not do.
		error_log(
			sprintf(
				'Loyalty Bridge: the plugin was deleted, but the loyalty program at %s did not confirm it forgot the key of the store at %s, so a copy of the key (a backup of this site) could still sign for the store. To replace the key, install the plugin again, connect it with a new code, then delete it.',
				(string) wp_parse_url( $connection['bridge_url'], PHP_URL_HOST ),
				(string) wp_parse_url( home_url(), PHP_URL_HOST )
			)
		);
	}
	delete_option( LOYALTY_BRIDGE_OPTION );
	loyalty_bridge_forget_mail_claims();
};

// On a multisite network WordPress runs this once, on the main site, but every site that had the plugin keeps its
// own connection (its own key) and mail claims in its own options table.
if ( is_multisite() ) {
	foreach ( get_sites(
		array(
			'fields' => 'ids',
			'number' => 0,
		)
	) as $loyalty_bridge_site ) {
		switch_to_blog( (int) $loyalty_bridge_site );
		try {
			$loyalty_bridge_forget_site();
		} finally {
			restore_current_blog();
		}
	}
} else {
	$loyalty_bridge_forget_site();
}
// Users are the network's: their proofs are deleted once.
delete_metadata( 'user', 0, 'loyalty_bridge_proven_email', '', true );
delete_metadata( 'user', 0, 'loyalty_bridge_email_proof', '', true );
