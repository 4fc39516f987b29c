export {
  indexedTerms,
  messageSearchText,
  SEARCH_TERM,
  SEARCH_TERM_LENGTH,
  SEARCH_TERMS_LIMIT,
  SEARCH_TEXT_LIMIT,
  searchTerms,
} from "./search-terms.ts";
