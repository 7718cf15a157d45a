<?php
/**
 * Removing the plugin disconnects the store as Disconnect does (the store's plugin key must not outlive the plugin,
 * here or at the bridge: a backup of the site would still hold it) and forgets what it kept of its customers: the
 * addresses they proved, the proof links on their way, and when each last got one.
 *
 * WordPress runs this file without the plugin loaded, and with no page to show: what could not be done is logged.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

require_once __DIR__ . '/includes/signing.php';
require_once __DIR__ . '/includes/bridge-http.php';
require_once __DIR__ . '/includes/connection.php';
require_once __DIR__ . '/includes/mail-claim.php';

$loyalty_bridge_connection = loyalty_bridge_connection();
if ( null !== $loyalty_bridge_connection && ! loyalty_bridge_disconnect() ) {
	// phpcs:ignore WordPress.PHP.DevelopmentFunctions -- the one place an uninstall can say what it could not do.
	error_log(
		sprintf(
			'Loyalty Bridge: the plugin was deleted, but the loyalty program at %s did not confirm it forgot the store\'s key, so a copy of the key (a backup of this site) could still sign for the store. To replace the key, install the plugin again, connect it with a new code, then delete it.',
			(string) wp_parse_url( $loyalty_bridge_connection['bridge_url'], PHP_URL_HOST )
		)
	);
}
delete_option( LOYALTY_BRIDGE_OPTION );
delete_metadata( 'user', 0, 'loyalty_bridge_proven_email', '', true );
delete_metadata( 'user', 0, 'loyalty_bridge_email_proof', '', true );
loyalty_bridge_forget_mail_claims();
