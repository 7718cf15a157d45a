<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** The wp-admin door: the plugin signs the bridge's nonce for a user who manages WooCommerce, and redirects. */
final class DoorTest extends TestCase {
	private const NONCE = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde';

	protected function setUp(): void {
		WP::reset();
		$_GET = array();
	}

	protected function tearDown(): void {
		$_GET = array();
	}

	private function connect_and_sign_in_a_manager(): void {
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		WP::$user_id                              = 7;
		WP::$capabilities                         = array( 'manage_woocommerce' );
	}

	public function test_the_menu_link_names_only_the_store(): void {
		$connection          = test_connection();
		$connection['store'] = 'shop.example/shop';
		$this->assertSame( 'https://bridge.example/woocommerce/plugin-door?store=shop.example%2Fshop', loyalty_bridge_door_entry_url( $connection ) );
	}

	public function test_signs_the_contracts_payload_for_the_door_purpose(): void {
		$url = loyalty_bridge_door_finish_url( test_connection(), self::NONCE, 7, 1_700_000_000, false );

		$this->assertMatchesRegularExpression( '#^https://bridge\.example/woocommerce/plugin-door/finish\?payload=([A-Za-z0-9_-]+)&sig=([A-Za-z0-9_-]{43})$#', $url );
		parse_str( (string) parse_url( $url, PHP_URL_QUERY ), $query );
		$this->assertSame(
			array( 'purpose' => 'merchant-door', 'store' => 'shop.example', 'keyId' => 'pk_AAAAbbbbCCCC', 'nonce' => self::NONCE, 'user' => 7, 'mayConnect' => false, 'iat' => 1_700_000_000 ),
			decode_payload( $query['payload'] )
		);
		$this->assertSame( expected_signature( test_connection()['key'], 'loyalty-bridge merchant-door v1', $query['payload'] ), $query['sig'] );
		$this->assertNotSame( expected_signature( test_connection()['key'], 'loyalty-bridge identity v1', $query['payload'] ), $query['sig'], 'the purpose is part of what is signed' );
	}

	public function test_redirects_a_manager_to_the_bridge_with_the_signed_nonce(): void {
		$this->connect_and_sign_in_a_manager();
		$_GET['nonce'] = self::NONCE;

		loyalty_bridge_door_respond();

		[ [ $location ] ] = WP::calls( 'wp_redirect' );
		$this->assertStringStartsWith( 'https://bridge.example/woocommerce/plugin-door/finish?payload=', $location );
		parse_str( (string) parse_url( $location, PHP_URL_QUERY ), $query );
		$payload = decode_payload( $query['payload'] );
		$this->assertSame( self::NONCE, $payload['nonce'] );
		$this->assertSame( 7, $payload['user'] );
		$this->assertEqualsWithDelta( time(), $payload['iat'], 5 );
		$this->assertCount( 1, WP::calls( 'nocache_headers' ) );
	}

	/** The loyalty program's page gives connection codes (the store's key, to whoever holds one) only to who may connect. */
	public function test_says_whether_the_user_may_connect_the_plugin_an_administrator_yes_a_shop_manager_no(): void {
		$this->connect_and_sign_in_a_manager();
		$_GET['nonce'] = self::NONCE;
		loyalty_bridge_door_respond();
		WP::$capabilities = array( 'manage_woocommerce', 'manage_options', 'unfiltered_html' );
		loyalty_bridge_door_respond();

		$said = array();
		foreach ( WP::calls( 'wp_redirect' ) as [ $location ] ) {
			parse_str( (string) parse_url( $location, PHP_URL_QUERY ), $query );
			$said[] = decode_payload( $query['payload'] )['mayConnect'];
		}
		$this->assertSame( array( false, true ), $said );
	}

	public function test_refuses_a_user_who_does_not_manage_woocommerce(): void {
		$this->connect_and_sign_in_a_manager();
		WP::$capabilities = array( 'read' );
		$_GET['nonce']    = self::NONCE;

		try {
			loyalty_bridge_door_respond();
			$this->fail( 'a customer was sent to the merchant page' );
		} catch ( WpDie $refusal ) {
			$this->assertSame( 403, $refusal->status );
		}
		$this->assertSame( array(), WP::calls( 'wp_redirect' ) );
	}

	/** @return array<string, array{mixed}> */
	public static function bad_nonces(): array {
		return array(
			'missing'          => array( null ),
			'short'            => array( 'abc' ),
			'with a character' => array( substr( self::NONCE, 0, 42 ) . '&' ),
			'an array'         => array( array( self::NONCE ) ),
		);
	}

	/** @dataProvider bad_nonces */
	public function test_refuses_a_link_without_a_nonce_of_the_bridges_shape( mixed $nonce ): void {
		$this->connect_and_sign_in_a_manager();
		if ( null !== $nonce ) {
			$_GET['nonce'] = $nonce;
		}
		try {
			loyalty_bridge_door_respond();
			$this->fail( 'signed a nonce the bridge never made' );
		} catch ( WpDie $refusal ) {
			$this->assertSame( 400, $refusal->status );
		}
		$this->assertSame( array(), WP::calls( 'wp_redirect' ) );
	}

	public function test_says_so_when_the_store_is_not_connected(): void {
		WP::$user_id      = 7;
		WP::$capabilities = array( 'manage_woocommerce' );
		$_GET['nonce']    = self::NONCE;
		$this->expectException( WpDie::class );
		$this->expectExceptionMessage( 'not connected' );
		loyalty_bridge_door_respond();
	}

	public function test_a_signed_out_merchant_is_sent_to_sign_in(): void {
		$this->assertNotNull( hooked( 'add_action', 'admin_post_loyalty_bridge_door' ) );
		$this->assertSame( 'auth_redirect', hooked( 'add_action', 'admin_post_nopriv_loyalty_bridge_door' ) );
	}
}
