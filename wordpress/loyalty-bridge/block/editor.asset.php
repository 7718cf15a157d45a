<?php
/**
 * The editor script's dependencies, which WordPress reads beside the script named in block.json.
 *
 * @package LoyaltyBridge
 */

return array(
	'dependencies' => array( 'wp-blocks', 'wp-element', 'wp-block-editor', 'wp-i18n' ),
	'version'      => '0.1.0',
);
