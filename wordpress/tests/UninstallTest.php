<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

final class UninstallTest extends TestCase {
	public function test_deleting_the_plugin_deletes_the_connection_and_its_customers_proofs(): void {
		WP::reset();
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		WP::$user_meta[12] = array( 'loyalty_bridge_proven_email' => 'ada@example.com', 'billing_phone' => '+1' );
		WP::$user_meta[13] = array( 'loyalty_bridge_email_proof' => array( 'hash' => 'h' ) );
		define( 'WP_UNINSTALL_PLUGIN', 'loyalty-bridge/loyalty-bridge.php' );

		require dirname( __DIR__ ) . '/loyalty-bridge/uninstall.php';

		$this->assertSame( array(), WP::$options );
		$this->assertSame( array( 12 => array( 'billing_phone' => '+1' ), 13 => array() ), WP::$user_meta );
	}
}
