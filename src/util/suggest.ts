/** "Did you mean …?": the runtime's (its queries suggest fields too), shared by the generator's diagnostics. */
export { closest, didYouMean, distance } from '../../runtime/src/lib/suggest.js';
