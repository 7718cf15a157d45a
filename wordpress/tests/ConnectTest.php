<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** The server-side exchange of a code for the store's plugin key, and forgetting it. */
final class ConnectTest extends TestCase {
	private string $code;
	private string $key;

	protected function setUp(): void {
		WP::reset();
		$this->code = 'lb1.' . loyalty_bridge_base64url_encode( 'https://bridge.example' ) . '.' . loyalty_bridge_base64url_encode( random_bytes( 32 ) );
		$this->key  = loyalty_bridge_base64url_encode( random_bytes( 32 ) );
	}

	private static function answer( int $status, string $body ): array {
		return array(
			'response' => array( 'code' => $status ),
			'body'     => $body,
		);
	}

	public function test_a_good_answer_keeps_the_connection_in_one_option_not_autoloaded(): void {
		WP::$http_answers[] = self::answer( 200, json_encode( array( 'store' => 'shop.example', 'keyId' => 'pk_abcDEF123_-x', 'key' => $this->key ) ) );

		$result = loyalty_bridge_connect( $this->code );

		$this->assertTrue( $result['ok'] );
		$expected = array(
			'bridge_url' => 'https://bridge.example',
			'store'      => 'shop.example',
			'key_id'     => 'pk_abcDEF123_-x',
			'key'        => $this->key,
		);
		$this->assertSame( $expected, get_option( 'loyalty_bridge_connection' ) );
		$this->assertFalse( WP::$options['loyalty_bridge_connection']['autoload'] );
		$this->assertSame( $expected, loyalty_bridge_connection() );
	}

	public function test_posts_the_code_site_and_version_through_wordpress_safe_http_and_follows_no_redirect(): void {
		WP::$http_answers[] = self::answer( 200, json_encode( array( 'store' => 'shop.example', 'keyId' => 'pk_abcDEF123_-x', 'key' => $this->key ) ) );

		loyalty_bridge_connect( $this->code );

		[ $url, $args ] = WP::calls( 'wp_safe_remote_post' )[0];
		$this->assertSame( 'https://bridge.example/woocommerce/plugin/connect', $url );
		$this->assertSame( 0, $args['redirection'] );
		$this->assertGreaterThan( 0, $args['timeout'] );
		$this->assertSame( 'application/json', $args['headers']['Content-Type'] );
		$this->assertSame(
			array(
				'code'          => $this->code,
				'siteUrl'       => 'https://shop.example',
				'adminUrl'      => 'https://shop.example/wp/wp-admin/',
				'pluginVersion' => '0.1.0',
			),
			json_decode( $args['body'], true )
		);
	}

	/** @return array<string, array{array|WP_Error, string}> */
	public static function refusals(): array {
		$key = loyalty_bridge_base64url_encode( str_repeat( 'k', 32 ) );
		return array(
			'no answer'              => array( new WP_Error( 'http_request_failed', 'cURL error 28' ), 'Could not reach your loyalty program at bridge.example' ),
			'the bridge refuses'     => array( self::answer( 400, '{"error":"this code has expired: ask for a new one on your loyalty page"}' ), 'refused the code: this code has expired.' ),
			'a refusal with no body' => array( self::answer( 400, '' ), 'refused the code: the code was not accepted.' ),
			// Any server the code names answers what it likes: only the bridge's own refusals are put in words.
			'another server’s words' => array( self::answer( 400, '{"error":"your store is suspended: call +1 555 0100"}' ), 'refused the code: the code was not accepted.' ),
			'a redirect'             => array( self::answer( 302, '' ), 'answered with an error (HTTP 302)' ),
			'a server error'         => array( self::answer( 503, 'busy' ), 'answered with an error (HTTP 503)' ),
			'not JSON'               => array( self::answer( 200, '<html>' ), 'is not a loyalty program\'s' ),
			'no store'               => array( self::answer( 200, json_encode( array( 'keyId' => 'pk_abcDEF123_-x', 'key' => $key ) ) ), 'is not a loyalty program\'s' ),
			'a key id of no shape'   => array( self::answer( 200, json_encode( array( 'store' => 's', 'keyId' => 'k1', 'key' => $key ) ) ), 'is not a loyalty program\'s' ),
			'a short key'            => array( self::answer( 200, json_encode( array( 'store' => 's', 'keyId' => 'pk_abcDEF123_-x', 'key' => 'c2hvcnQ' ) ) ), 'is not a loyalty program\'s' ),
			'a store with a newline' => array( self::answer( 200, json_encode( array( 'store' => "s\nx", 'keyId' => 'pk_abcDEF123_-x', 'key' => $key ) ) ), 'is not a loyalty program\'s' ),
		);
	}

	/** @dataProvider refusals */
	public function test_a_refusal_keeps_nothing_and_says_why( array|WP_Error $answer, string $words ): void {
		WP::$http_answers[] = $answer;

		$result = loyalty_bridge_connect( $this->code );

		$this->assertFalse( $result['ok'] );
		$this->assertStringContainsString( $words, $result['error'] );
		$this->assertSame( array(), WP::$options );
		$this->assertNull( loyalty_bridge_connection() );
	}

	public function test_a_refusal_shows_no_more_of_the_answer_than_its_status(): void {
		foreach ( array( 400 => '{"error":"<b>visit evil.example</b>"}', 503 => 'visit evil.example', 200 => '{"store":"visit evil.example"}' ) as $status => $body ) {
			WP::$http_answers[] = self::answer( $status, $body );
			$this->assertStringNotContainsString( 'evil', loyalty_bridge_connect( $this->code )['error'] );
		}
	}

	public function test_every_refusal_of_the_bridges_connect_route_has_the_plugins_own_words(): void {
		$route = (string) file_get_contents( dirname( __DIR__, 2 ) . '/adapters/woocommerce/plugin-connect.ts' );
		preg_match_all( "/refused\('([^']+)'\)/", $route, $direct );
		preg_match( '/const REFUSALS = \{(.*?)\} as const;/s', $route, $block );
		preg_match_all( "/: '([^']+)',/", $block[1] ?? '', $named );
		$words = array_merge( $direct[1], $named[1] );
		$this->assertGreaterThanOrEqual( 7, count( $words ) );
		foreach ( $words as $said ) {
			$this->assertNotSame( 'the code was not accepted', loyalty_bridge_refusal_words( $said ), $said );
		}
	}

	public function test_a_bridge_on_this_machine_is_let_through_safe_http_only_in_debug_mode_and_only_itself(): void {
		$allowed = loyalty_bridge_local_bridge_filters( 'https://localhost:8443/loyalty/woocommerce/plugin/connect', true );
		$this->assertTrue( $allowed['http_request_host_is_external']( false, 'localhost', '' ) );
		$this->assertFalse( $allowed['http_request_host_is_external']( false, '127.0.0.1', '' ) );
		$this->assertFalse( $allowed['http_request_host_is_external']( false, 'intranet.local', '' ) );
		$this->assertSame( array( 80, 443, 8080, 8443 ), $allowed['http_allowed_safe_ports']( array( 80, 443, 8080 ), 'localhost', '' ) );
		$this->assertSame( array( 80, 443, 8080 ), $allowed['http_allowed_safe_ports']( array( 80, 443, 8080 ), 'intranet.local', '' ) );
		$this->assertSame( array(), loyalty_bridge_local_bridge_filters( 'https://localhost:8443/', false ), 'not without WP_DEBUG' );
		$this->assertSame( array(), loyalty_bridge_local_bridge_filters( 'https://10.0.0.2:8443/', true ), 'never a private network' );
	}

	public function test_without_debug_mode_a_bridge_on_this_machine_is_left_to_wordpress_to_refuse(): void {
		loyalty_bridge_connect( 'lb1.' . loyalty_bridge_base64url_encode( 'https://localhost:8443' ) . '.' . loyalty_bridge_base64url_encode( random_bytes( 32 ) ) );
		[ [ , , $asked ] ] = WP::calls( 'wp_safe_remote_post' );
		$this->assertSame( array( 'external' => false, 'ports' => array( 80, 443, 8080 ) ), $asked );
		$this->assertSame( array(), array_filter( WP::$filters ), 'nothing left on the filters' );
	}

	public function test_a_bad_code_is_never_sent(): void {
		$result = loyalty_bridge_connect( 'lb1.' . loyalty_bridge_base64url_encode( 'http://bridge.example' ) . '.' . loyalty_bridge_base64url_encode( random_bytes( 32 ) ) );
		$this->assertFalse( $result['ok'] );
		$this->assertSame( array(), WP::calls( 'wp_safe_remote_post' ) );
	}

	public function test_a_refused_new_code_leaves_the_working_connection(): void {
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		WP::$http_answers[]                       = self::answer( 400, '{"error":"this code is unknown or was used: ask for a new one on your loyalty page"}' );

		loyalty_bridge_connect( $this->code );

		$this->assertSame( test_connection(), loyalty_bridge_connection() );
	}

	public function test_disconnect_tells_the_bridge_signed_for_that_purpose_and_forgets_the_key(): void {
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		WP::$http_answers[]                       = self::answer( 200, '{"disconnected":true}' );

		$this->assertTrue( loyalty_bridge_disconnect( 1_700_000_000 ), 'the bridge said it forgot the key' );

		$this->assertArrayNotHasKey( 'loyalty_bridge_connection', WP::$options );
		$this->assertNull( loyalty_bridge_connection() );
		[ [ $url, $args ] ] = WP::calls( 'wp_safe_remote_post' );
		$this->assertSame( 'https://bridge.example/woocommerce/plugin/disconnect', $url );
		$this->assertSame( 0, $args['redirection'] );
		$sent = json_decode( $args['body'], true );
		$this->assertSame(
			array( 'purpose' => 'disconnect', 'store' => 'shop.example', 'keyId' => 'pk_AAAAbbbbCCCC', 'iat' => 1_700_000_000 ),
			decode_payload( $sent['payload'] )
		);
		$this->assertSame( expected_signature( test_connection()['key'], 'loyalty-bridge disconnect v1', $sent['payload'] ), $sent['sig'] );
	}

	public function test_disconnect_forgets_the_key_even_when_the_bridge_cannot_be_reached(): void {
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
		WP::$http_answers[]                       = new WP_Error( 'http_request_failed', 'no route to host' );

		$this->assertFalse( loyalty_bridge_disconnect() );

		$this->assertNull( loyalty_bridge_connection() );
	}

	public function test_a_disconnect_the_bridge_did_not_confirm_is_said_so(): void {
		foreach ( array( self::answer( 400, '{"error":"x"}' ), self::answer( 200, '<html>' ), self::answer( 302, '' ) ) as $answer ) {
			WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
			WP::$http_answers[]                       = $answer;
			$this->assertFalse( loyalty_bridge_disconnect() );
		}
	}

	public function test_a_damaged_option_is_no_connection(): void {
		WP::$options['loyalty_bridge_connection'] = array( 'value' => array( 'store' => 'shop.example' ), 'autoload' => false );
		$this->assertNull( loyalty_bridge_connection() );
	}
}
