<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** Reading the pasted code: the bridge's address comes from it, over https only. */
final class ConnectionCodeTest extends TestCase {
	private static function code( string $address, ?string $secret = null ): string {
		return 'lb1.' . loyalty_bridge_base64url_encode( $address ) . '.' . ( $secret ?? loyalty_bridge_base64url_encode( random_bytes( 32 ) ) );
	}

	public function test_reads_the_bridge_address_from_a_code(): void {
		$code   = self::code( 'https://Bridge.example/' );
		$parsed = loyalty_bridge_parse_code( "  $code\n", false );
		$this->assertTrue( $parsed['ok'] );
		$this->assertSame( 'https://bridge.example', $parsed['bridge_url'] );
		$this->assertSame( $code, $parsed['code'], 'the whole code, without the spaces a paste brings' );
	}

	public function test_keeps_a_port_and_a_path(): void {
		$parsed = loyalty_bridge_parse_code( self::code( 'https://bridge.example:8443/loyalty/' ), false );
		$this->assertSame( 'https://bridge.example:8443/loyalty', $parsed['bridge_url'] );
	}

	/** @return array<string, array{string, bool}> */
	public static function refused(): array {
		$secret = loyalty_bridge_base64url_encode( str_repeat( 'x', 32 ) );
		return array(
			'not a code'                        => array( 'hello', false ),
			'another version'                   => array( 'lb2.' . loyalty_bridge_base64url_encode( 'https://bridge.example' ) . '.' . $secret, false ),
			'a part missing'                    => array( 'lb1.' . loyalty_bridge_base64url_encode( 'https://bridge.example' ), false ),
			'a secret of 31 bytes'              => array( self::code( 'https://bridge.example', loyalty_bridge_base64url_encode( str_repeat( 'x', 31 ) ) ), false ),
			'a secret with padding'             => array( self::code( 'https://bridge.example', $secret . '=' ), false ),
			'an address that is not base64url'  => array( 'lb1.https://bridge.example.' . $secret, false ),
			'an address that is no URL'         => array( self::code( 'bridge.example' ), false ),
			'plain http'                        => array( self::code( 'http://bridge.example' ), false ),
			'plain http even with WP_DEBUG'     => array( self::code( 'http://bridge.example' ), true ),
			'plain http loopback without debug' => array( self::code( 'http://127.0.0.1:3000' ), false ),
			'another scheme'                    => array( self::code( 'ftp://bridge.example' ), false ),
			'a user in the address'             => array( self::code( 'https://me:pw@bridge.example' ), false ),
			'a query in the address'            => array( self::code( 'https://bridge.example/?next=evil.example' ), false ),
			// Printed in wp-admin and in every page's script tag.
			'markup in the path'                => array( self::code( "https://bridge.example/'><svg/onload=alert(1)>" ), false ),
			'a quote in the path'               => array( self::code( 'https://bridge.example/a"b' ), false ),
			'a dot segment in the path'         => array( self::code( 'https://bridge.example/loyalty/../admin' ), false ),
			// WordPress's safe HTTP takes no IPv6 literal: "localhost" is the way to this machine.
			'an IPv6 loopback'                  => array( self::code( 'http://[::1]:3000' ), true ),
		);
	}

	/** @dataProvider refused */
	public function test_refuses_in_plain_words( string $code, bool $debug ): void {
		$parsed = loyalty_bridge_parse_code( $code, $debug );
		$this->assertFalse( $parsed['ok'] );
		$this->assertMatchesRegularExpression( '/^[A-Z].*\.$/s', $parsed['error'] );
	}

	/** @return array<string, array{string, string}> */
	public static function loopbacks(): array {
		return array(
			'127.0.0.1' => array( 'http://127.0.0.1:3000', 'http://127.0.0.1:3000' ),
			'localhost' => array( 'http://localhost:3000/', 'http://localhost:3000' ),
		);
	}

	/** @dataProvider loopbacks */
	public function test_allows_plain_http_to_this_machine_only_with_wp_debug( string $address, string $bridge ): void {
		$parsed = loyalty_bridge_parse_code( self::code( $address ), true );
		$this->assertTrue( $parsed['ok'] );
		$this->assertSame( $bridge, $parsed['bridge_url'] );
	}
}
