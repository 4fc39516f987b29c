/** placeholder until the adapter lands */
export {};
