<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** Deleting the plugin: the bridge is told while the key still can sign, and the site keeps nothing of it. */
final class UninstallTest extends TestCase {
	private string $log;

	protected function setUp(): void {
		WP::reset();
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		WP::$options['loyalty_bridge_mail_13']    = array( 'value' => '1700000000', 'autoload' => 'no' );
		WP::$options['blogname']                  = array( 'value' => 'Shop', 'autoload' => 'yes' );
		WP::$user_meta[12]                        = array( 'loyalty_bridge_proven_email' => 'ada@example.com', 'billing_phone' => '+1' );
		WP::$user_meta[13]                        = array( 'loyalty_bridge_email_proof' => array( 'hash' => 'h' ) );
		$this->log                                = (string) tempnam( sys_get_temp_dir(), 'lb-uninstall-' );
		ini_set( 'error_log', $this->log );
		defined( 'WP_UNINSTALL_PLUGIN' ) || define( 'WP_UNINSTALL_PLUGIN', 'loyalty-bridge/loyalty-bridge.php' );
	}

	protected function tearDown(): void {
		ini_restore( 'error_log' );
		unlink( $this->log );
	}

	private static function uninstall(): void {
		require dirname( __DIR__ ) . '/loyalty-bridge/uninstall.php';
	}

	public function test_deleting_the_plugin_tells_the_bridge_and_forgets_the_connection_and_its_customers(): void {
		WP::$http_answers[] = array( 'response' => array( 'code' => 200 ), 'body' => '{"disconnected":true}' );
		$before             = time();

		self::uninstall();

		[ [ $url, $args ] ] = WP::calls( 'wp_safe_remote_post' );
		$this->assertSame( 'https://bridge.example/woocommerce/plugin/disconnect', $url );
		$sent    = json_decode( $args['body'], true );
		$payload = decode_payload( $sent['payload'] );
		$this->assertSame( array( 'disconnect', 'shop.example', 'pk_AAAAbbbbCCCC' ), array( $payload['purpose'], $payload['store'], $payload['keyId'] ) );
		$this->assertGreaterThanOrEqual( $before, $payload['iat'] );
		$this->assertSame( expected_signature( test_connection()['key'], 'loyalty-bridge disconnect v1', $sent['payload'] ), $sent['sig'] );
		$this->assertSame( array( 'blogname' ), array_keys( WP::$options ) );
		$this->assertSame( array( 12 => array( 'billing_phone' => '+1' ), 13 => array() ), WP::$user_meta );
		$this->assertSame( '', (string) file_get_contents( $this->log ) );
	}

	public function test_an_uninstall_the_bridge_did_not_confirm_is_logged_and_still_forgets_the_key(): void {
		WP::$http_answers[] = new WP_Error( 'http_request_failed', 'cURL error 7' );

		self::uninstall();

		$logged = (string) file_get_contents( $this->log );
		$this->assertStringContainsString( 'Loyalty Bridge: the plugin was deleted, but the loyalty program at bridge.example did not confirm it forgot the key of the store at shop.example', $logged );
		$this->assertStringContainsString( 'install the plugin again, connect it with a new code, then delete it', $logged );
		$this->assertStringNotContainsString( test_connection()['key'], $logged );
		$this->assertNull( loyalty_bridge_connection() );
	}

	/**
	 * On a multisite network WordPress runs uninstall.php once, on the main site; each site that had the plugin keeps
	 * its own connection (its key) in its own options table, and each key must be revoked at its bridge and deleted.
	 */
	public function test_deleting_the_plugin_from_a_network_disconnects_every_site_that_was_connected(): void {
		WP::$multisite       = true;
		$second              = test_connection();
		$second['bridge_url'] = 'https://other-bridge.example';
		$second['store']     = 'shop-two.example';
		$second['key_id']    = 'pk_SecondSite1234';
		WP::$other_sites[2] = array(
			'loyalty_bridge_connection' => array( 'value' => $second, 'autoload' => false ),
			'loyalty_bridge_mail_14'    => array( 'value' => '1700000000', 'autoload' => 'no' ),
			'blogname'                  => array( 'value' => 'Shop two', 'autoload' => 'yes' ),
		);
		WP::$other_sites[3] = array( 'blogname' => array( 'value' => 'A blog', 'autoload' => 'yes' ) );
		WP::$http_answers[] = array( 'response' => array( 'code' => 200 ), 'body' => '{"disconnected":true}' );
		WP::$http_answers[] = array( 'response' => array( 'code' => 200 ), 'body' => '{"disconnected":true}' );

		self::uninstall();

		$told = array();
		foreach ( WP::calls( 'wp_safe_remote_post' ) as [ $url, $args ] ) {
			$sent    = json_decode( $args['body'], true );
			$payload = decode_payload( $sent['payload'] );
			$told[]  = array( $url, $payload['store'], $payload['keyId'] );
		}
		$this->assertSame(
			array(
				array( 'https://bridge.example/woocommerce/plugin/disconnect', 'shop.example', 'pk_AAAAbbbbCCCC' ),
				array( 'https://other-bridge.example/woocommerce/plugin/disconnect', 'shop-two.example', 'pk_SecondSite1234' ),
			),
			$told
		);
		$this->assertSame( 1, WP::$blog_id, 'the main site is current again' );
		$this->assertSame( array( 'blogname' ), array_keys( WP::$options ) );
		$this->assertSame( array( 'blogname' ), array_keys( WP::$other_sites[2] ) );
		$this->assertSame( array( 'blogname' ), array_keys( WP::$other_sites[3] ) );
		$this->assertSame( '', (string) file_get_contents( $this->log ) );
	}

	public function test_a_store_that_was_not_connected_asks_nothing_and_logs_nothing(): void {
		unset( WP::$options['loyalty_bridge_connection'] );

		self::uninstall();

		$this->assertSame( array(), WP::calls( 'wp_safe_remote_post' ) );
		$this->assertSame( '', (string) file_get_contents( $this->log ) );
	}
}
