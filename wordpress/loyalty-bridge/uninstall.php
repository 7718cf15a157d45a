<?php
/**
 * Removing the plugin forgets the connection (the store's plugin key must not outlive the plugin) and what it kept
 * of its customers: the addresses they proved, and the proof links on their way.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

delete_option( 'loyalty_bridge_connection' );
delete_metadata( 'user', 0, 'loyalty_bridge_proven_email', '', true );
delete_metadata( 'user', 0, 'loyalty_bridge_email_proof', '', true );
