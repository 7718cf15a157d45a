<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

final class UninstallTest extends TestCase {
	public function test_deleting_the_plugin_deletes_the_connection(): void {
		WP::reset();
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		define( 'WP_UNINSTALL_PLUGIN', 'loyalty-bridge/loyalty-bridge.php' );

		require dirname( __DIR__ ) . '/loyalty-bridge/uninstall.php';

		$this->assertSame( array(), WP::$options );
	}
}
