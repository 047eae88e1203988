/** The runtime's (its messages name models so too), shared by the generator's messages. */
export { withArticle } from '../../runtime/src/lib/text.js';
