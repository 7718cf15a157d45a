<?php
/**
 * Writes vectors.json: what the plugin signs, for the bridge's TypeScript side to check that it signs and verifies
 * byte for byte the same. Run: php wordpress/tests/make-vectors.php > wordpress/tests/vectors.json
 */

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

$cases = array(
	array(
		'name'    => 'merchant door',
		'key'     => loyalty_bridge_base64url_encode( hash( 'sha256', 'loyalty-bridge test key 1', true ) ),
		'purpose' => LOYALTY_BRIDGE_PURPOSE_DOOR,
		'payload' => array( 'purpose' => 'merchant-door', 'store' => 'shop.example', 'keyId' => 'pk_AAAAbbbbCCCC', 'nonce' => 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde', 'user' => 1, 'iat' => 1767225600 ),
	),
	array(
		'name'    => 'storefront identity with a phone',
		'key'     => loyalty_bridge_base64url_encode( hash( 'sha256', 'loyalty-bridge test key 2', true ) ),
		'purpose' => LOYALTY_BRIDGE_PURPOSE_IDENTITY,
		'payload' => array( 'purpose' => 'storefront-identity', 'store' => 'store.example/shop', 'keyId' => 'pk_x-Y_z0123456', 'customerId' => '42', 'email' => 'ada@example.com', 'phone' => '+44 20 7946 0000', 'iat' => 1767225600, 'exp' => 1767225900 ),
	),
	array(
		'name'    => 'storefront identity, no phone, non-ASCII e-mail',
		'key'     => loyalty_bridge_base64url_encode( hash( 'sha256', 'loyalty-bridge test key 2', true ) ),
		'purpose' => LOYALTY_BRIDGE_PURPOSE_IDENTITY,
		'payload' => array( 'purpose' => 'storefront-identity', 'store' => 'store.example/shop', 'keyId' => 'pk_x-Y_z0123456', 'customerId' => '7', 'email' => 'zoë@exämple.com', 'iat' => 1767225600, 'exp' => 1767225900 ),
	),
);

$vectors = array();
foreach ( $cases as $case ) {
	$signed    = loyalty_bridge_sign( $case['key'], $case['purpose'], $case['payload'] );
	$vectors[] = array(
		'name'      => $case['name'],
		'key'       => $case['key'],
		'purpose'   => $case['purpose'],
		'payload'   => $signed['payload'],
		'signature' => $signed['sig'],
	);
}

$json = json_encode(
	array(
		'about'   => 'HMAC-SHA256 under the plugin key (the 32 bytes its base64url text decodes to) over the UTF-8 bytes of "<purpose>.<payload>"; payload and signature base64url without padding (docs/wordpress-plugin.md). Made by wordpress/tests/make-vectors.php.',
		'vectors' => $vectors,
	),
	JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR
);
// Two spaces a level, as the repository's prettier writes JSON, so `prettier --check .` passes as generated.
echo preg_replace_callback( '/^(?: {4})+/m', static fn ( array $m ): string => str_repeat( ' ', strlen( $m[0] ) / 2 ), $json ) . "\n";
