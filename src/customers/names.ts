// What a customer is called where people read it: the company for a business, else the person's name.

export function customerTitle(customer: { name: string; companyName: string | null }): string {
  return customer.companyName ?? customer.name;
}

export function typeLabel(type: 'person' | 'business'): string {
  return type === 'business' ? 'Business' : 'Person';
}
