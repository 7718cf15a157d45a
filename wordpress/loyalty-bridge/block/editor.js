// The block's face in the editor. The page shows the widget's panel, rendered on the server (render_callback):
// nothing is saved in the post but the block's comment.
/* global wp */
(function (blocks, element, blockEditor, i18n) {
  blocks.registerBlockType('loyalty-bridge/points', {
    edit: function () {
      return element.createElement(
        'div',
        blockEditor.useBlockProps(),
        i18n.__('Loyalty points: signed-in customers see their balance and rewards here.', 'loyalty-bridge'),
      );
    },
    save: function () {
      return null;
    },
  });
})(wp.blocks, wp.element, wp.blockEditor, wp.i18n);
